def new_cart(items=[]):
    return {"items": items}


def add_item(cart, item):
    cart["items"].append(item)
    return cart
