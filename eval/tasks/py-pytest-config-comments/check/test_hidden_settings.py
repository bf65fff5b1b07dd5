from settings import load_config


def test_hidden_comments_blanks_and_spaces(tmp_path):
    path = tmp_path / "app.conf"
    path.write_text("# the server\nhost = example.org\n\n   \nport= 9000 \n  # indented comment\nurl=http://x/?a=b\n")
    assert load_config(path) == {"host": "example.org", "port": "9000", "url": "http://x/?a=b"}


def test_hidden_plain_file_still_works(tmp_path):
    path = tmp_path / "plain.conf"
    path.write_text("a=1\nb=2")
    assert load_config(path) == {"a": "1", "b": "2"}
