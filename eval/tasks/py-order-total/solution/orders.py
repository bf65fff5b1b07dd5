from dataclasses import dataclass, field


@dataclass
class Line:
    sku: str
    quantity: int
    price: float


@dataclass
class Order:
    lines: list = field(default_factory=list)
    discount_percent: float = 0.0

    def add(self, sku, quantity, price):
        self.lines.append(Line(sku, quantity, price))
        return self

    def total(self):
        gross = sum(line.quantity * line.price for line in self.lines)
        return round(gross * (1 - self.discount_percent / 100), 2)
