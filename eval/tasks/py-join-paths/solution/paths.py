import os


def output_path(folder, name):
    return os.path.join(folder, name)
