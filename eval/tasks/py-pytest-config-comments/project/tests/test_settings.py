from settings import load_config


def test_plain_pairs(tmp_path):
    path = tmp_path / "app.conf"
    path.write_text("host=localhost\nport=8080\n")
    assert load_config(path) == {"host": "localhost", "port": "8080"}
