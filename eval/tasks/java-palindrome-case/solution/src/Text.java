public final class Text {
    private Text() {}

    /** Whether s reads the same backwards, ignoring case and anything but letters and digits. */
    public static boolean isPalindrome(String s) {
        String letters = s.toLowerCase().replaceAll("[^\\p{L}\\p{N}]", "");
        int i = 0;
        int j = letters.length() - 1;
        while (i < j) {
            if (letters.charAt(i) != letters.charAt(j)) {
                return false;
            }
            i++;
            j--;
        }
        return true;
    }
}
