use wordcount::word_count;

#[test]
fn hidden_whitespace_runs() {
    assert_eq!(word_count("hello   world"), 2);
    assert_eq!(word_count("  one\ttwo\nthree  "), 3);
    assert_eq!(word_count(""), 0);
    assert_eq!(word_count("   "), 0);
    assert_eq!(word_count("single"), 1);
}
