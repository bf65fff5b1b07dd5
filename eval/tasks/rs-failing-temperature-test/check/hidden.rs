use temperature::to_fahrenheit;

#[test]
fn hidden_freezing_and_minus_forty() {
    assert!((to_fahrenheit(0.0) - 32.0).abs() < 1e-9);
    assert!((to_fahrenheit(-40.0) + 40.0).abs() < 1e-9);
}
