def new_cart(items=None):
    return {"items": list(items) if items is not None else []}


def add_item(cart, item):
    cart["items"].append(item)
    return cart
