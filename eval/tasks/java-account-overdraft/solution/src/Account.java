public class Account {
    private long balanceCents;

    public Account(long openingCents) {
        this.balanceCents = openingCents;
    }

    public long balance() {
        return balanceCents;
    }

    public void deposit(long cents) {
        if (cents <= 0) {
            throw new IllegalArgumentException("deposit must be positive");
        }
        balanceCents += cents;
    }

    public void withdraw(long cents) {
        if (cents <= 0) {
            throw new IllegalArgumentException("withdrawal must be positive");
        }
        if (cents > balanceCents) {
            throw new IllegalArgumentException("insufficient funds");
        }
        balanceCents -= cents;
    }
}
