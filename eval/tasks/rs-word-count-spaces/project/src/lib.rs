/// The number of words in text.
pub fn word_count(text: &str) -> usize {
    if text.is_empty() {
        return 0;
    }
    text.split(' ').count()
}
