const users = [{ id: 1, name: "Ada" }, { id: 2, name: "Linus" }];

export function getUser(id) {
  return users.find((user) => user.id === id);
}
