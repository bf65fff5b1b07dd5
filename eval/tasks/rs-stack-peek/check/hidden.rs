use stack::Stack;

#[test]
fn hidden_peek() {
    let mut s: Stack<String> = Stack::new();
    assert_eq!(s.peek(), None);
    s.push("a".to_string());
    s.push("b".to_string());
    assert_eq!(s.peek().map(String::as_str), Some("b"));
    assert_eq!(s.len(), 2);
    assert_eq!(s.pop().as_deref(), Some("b"));
    assert_eq!(s.peek().map(String::as_str), Some("a"));
}
