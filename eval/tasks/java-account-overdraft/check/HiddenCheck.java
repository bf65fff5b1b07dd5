public class HiddenCheck {
    static void expect(boolean ok, String what) {
        if (!ok) {
            System.err.println("FAILED: " + what);
            System.exit(1);
        }
    }

    static boolean refuses(Account account, long cents) {
        try {
            account.withdraw(cents);
            return false;
        } catch (IllegalArgumentException expected) {
            return true;
        }
    }

    public static void main(String[] args) {
        Account account = new Account(1000);
        account.withdraw(400);
        expect(account.balance() == 600, "600 left after withdrawing 400");
        expect(refuses(account, 601), "an overdraft is refused");
        expect(account.balance() == 600, "a refused withdrawal leaves the balance");
        expect(refuses(account, 0), "zero is refused");
        expect(refuses(account, -5), "a negative amount is refused");
        account.withdraw(600);
        expect(account.balance() == 0, "the whole balance may be withdrawn");
        System.out.println("ok");
    }
}
