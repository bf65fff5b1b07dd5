public class RomanTest {
    static int failures = 0;

    static void check(int n, String expected) {
        String got = Roman.toRoman(n);
        if (!got.equals(expected)) {
            System.err.println("toRoman(" + n + ") = " + got + ", expected " + expected);
            failures++;
        }
    }

    public static void main(String[] args) {
        check(1, "I");
        check(3, "III");
        check(4, "IV");
        check(9, "IX");
        check(14, "XIV");
        check(40, "XL");
        check(90, "XC");
        check(400, "CD");
        check(1994, "MCMXCIV");
        check(2024, "MMXXIV");
        if (failures > 0) {
            System.exit(1);
        }
        System.out.println("all passed");
    }
}
