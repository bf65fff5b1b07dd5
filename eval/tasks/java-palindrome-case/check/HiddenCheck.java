public class HiddenCheck {
    static void expect(boolean ok, String what) {
        if (!ok) {
            System.err.println("FAILED: " + what);
            System.exit(1);
        }
    }

    public static void main(String[] args) {
        expect(Text.isPalindrome("Never odd or even"), "Never odd or even");
        expect(Text.isPalindrome("A man, a plan, a canal: Panama!"), "A man, a plan...");
        expect(Text.isPalindrome("racecar"), "racecar");
        expect(Text.isPalindrome(""), "empty");
        expect(!Text.isPalindrome("Hello"), "Hello is not one");
        System.out.println("ok");
    }
}
