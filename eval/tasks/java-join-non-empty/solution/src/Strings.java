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

    /** The parts joined with separator, null and blank parts left out. */
    public static String joinNonEmpty(String separator, String... parts) {
        StringBuilder out = new StringBuilder();
        for (String part : parts) {
            if (isBlank(part)) {
                continue;
            }
            if (out.length() > 0) {
                out.append(separator);
            }
            out.append(part);
        }
        return out.toString();
    }
}
