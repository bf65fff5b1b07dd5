#!/bin/bash
# Prints its input with leading and trailing blanks removed from each line.
sed -e 's/^ *//' -e 's/ *$//'
