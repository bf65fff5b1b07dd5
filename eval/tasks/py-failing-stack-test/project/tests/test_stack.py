import unittest

from stack import Stack


class StackTest(unittest.TestCase):
    def test_last_in_first_out(self):
        s = Stack()
        s.push(1)
        s.push(2)
        self.assertEqual(s.pop(), 2)

    def test_empty(self):
        s = Stack()
        self.assertTrue(s.is_empty())
        s.push(1)
        self.assertFalse(s.is_empty())

    def test_pop_empty_raises(self):
        with self.assertRaisesRegex(IndexError, "empty stack"):
            Stack().pop()


if __name__ == "__main__":
    unittest.main()
