use quota::{fits, remaining};

#[test]
fn hidden_no_underflow() {
    assert_eq!(remaining(10, 3), 7);
    assert_eq!(remaining(10, 10), 0);
    assert_eq!(remaining(3, 10), 0);
    assert!(fits(10, 3, 7));
    assert!(!fits(3, 10, 1));
}
