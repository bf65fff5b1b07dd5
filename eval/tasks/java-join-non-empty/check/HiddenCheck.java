public class HiddenCheck {
    static void expect(String got, String want) {
        if (!got.equals(want)) {
            System.err.println("FAILED: got \"" + got + "\", want \"" + want + "\"");
            System.exit(1);
        }
    }

    public static void main(String[] args) {
        expect(Strings.joinNonEmpty(", ", "a", null, "", "b"), "a, b");
        expect(Strings.joinNonEmpty("-", "x", "  ", "y", "z"), "x-y-z");
        expect(Strings.joinNonEmpty("/"), "");
        expect(Strings.joinNonEmpty("/", null, ""), "");
        expect(Strings.repeat("ab", 2), "abab");
        System.out.println("ok");
    }
}
