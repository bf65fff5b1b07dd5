/// Degrees Celsius to degrees Fahrenheit.
pub fn to_fahrenheit(celsius: f64) -> f64 {
    celsius * 9.0 / 5.0 + 32.0
}

/// Degrees Fahrenheit to degrees Celsius.
pub fn to_celsius(fahrenheit: f64) -> f64 {
    (fahrenheit - 32.0) * 5.0 / 9.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boiling_point() {
        assert!((to_fahrenheit(100.0) - 212.0).abs() < 1e-9);
    }

    #[test]
    fn round_trip() {
        for c in [-40.0, 0.0, 37.0, 100.0] {
            assert!((to_celsius(to_fahrenheit(c)) - c).abs() < 1e-9);
        }
    }
}
