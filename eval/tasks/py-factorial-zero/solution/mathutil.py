def factorial(n):
    if n < 0:
        raise ValueError("factorial of a negative number")
    result = 1
    for k in range(2, n + 1):
        result *= k
    return result
