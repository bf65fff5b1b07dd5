/// "Fizz" for multiples of 3, "Buzz" for multiples of 5, "FizzBuzz" for both, else the number.
pub fn fizzbuzz(n: u32) -> String {
    if n % 3 == 0 {
        "Fizz".to_string()
    } else if n % 5 == 0 {
        "Buzz".to_string()
    } else if n % 15 == 0 {
        "FizzBuzz".to_string()
    } else {
        n.to_string()
    }
}
