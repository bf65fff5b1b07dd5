/// The number of words in text.
pub fn word_count(text: &str) -> usize {
    text.split_whitespace().count()
}
