public final class Strings {
    private Strings() {}

    /** Whether s is null or has only whitespace. */
    public static boolean isBlank(String s) {
        return s == null || s.trim().isEmpty();
    }

    /** s repeated n times. */
    public static String repeat(String s, int n) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < n; i++) {
            out.append(s);
        }
        return out.toString();
    }
}
