public class HiddenCheck {
    public static void main(String[] args) {
        String[][] cases = {{"3999", "MMMCMXCIX"}, {"444", "CDXLIV"}, {"19", "XIX"}};
        for (String[] c : cases) {
            String got = Roman.toRoman(Integer.parseInt(c[0]));
            if (!got.equals(c[1])) {
                System.err.println("FAILED: toRoman(" + c[0] + ") = " + got);
                System.exit(1);
            }
        }
        System.out.println("ok");
    }
}
