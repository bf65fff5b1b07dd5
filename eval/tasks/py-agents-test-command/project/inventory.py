"""Stock levels per SKU."""


def restock(levels: dict[str, int], sku: str, quantity: int) -> dict[str, int]:
    if quantity <= 0:
        raise ValueError("quantity must be positive")
    updated = dict(levels)
    updated[sku] = updated.get(sku, 0) + quantity
    return updated


def take(levels: dict[str, int], sku: str, quantity: int) -> dict[str, int]:
    have = levels.get(sku, 0)
    if quantity > have:
        raise ValueError(f"only {have} of {sku} in stock")
    updated = dict(levels)
    updated[sku] = have - quantity
    return updated
