def word_count(text):
    raise NotImplementedError
