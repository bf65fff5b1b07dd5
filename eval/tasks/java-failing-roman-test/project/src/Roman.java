public final class Roman {
    private Roman() {}

    private static final int[] VALUES = {1000, 500, 100, 50, 10, 5, 1};
    private static final String[] SYMBOLS = {"M", "D", "C", "L", "X", "V", "I"};

    /** n (1 to 3999) in Roman numerals. */
    public static String toRoman(int n) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < VALUES.length; i++) {
            while (n >= VALUES[i]) {
                out.append(SYMBOLS[i]);
                n -= VALUES[i];
            }
        }
        return out.toString();
    }
}
