def output_path(folder, name):
    return folder + name
