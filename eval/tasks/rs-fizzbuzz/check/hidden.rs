use fizzbuzz::fizzbuzz;

#[test]
fn hidden_fizzbuzz() {
    let got: Vec<String> = (1..=15).map(fizzbuzz).collect();
    assert_eq!(got.join(","), "1,2,Fizz,4,Buzz,Fizz,7,8,Fizz,Buzz,11,Fizz,13,14,FizzBuzz");
    assert_eq!(fizzbuzz(30), "FizzBuzz");
}
