use semver_lite::parse_version;

#[test]
fn hidden_prefixed_versions() {
    assert_eq!(parse_version("v1.2.3"), Some((1, 2, 3)));
    assert_eq!(parse_version("V10.0.1"), Some((10, 0, 1)));
    assert_eq!(parse_version("1.2.3"), Some((1, 2, 3)));
    assert_eq!(parse_version("x1.2.3"), None);
    assert_eq!(parse_version("vv1.2.3"), None);
    assert_eq!(parse_version("v1.2"), None);
    assert_eq!(parse_version("1.2.3.4"), None);
}
