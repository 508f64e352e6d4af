#!/usr/bin/python3
# 420 and 493 are 0644 and 0755 spelt in decimal: the value was meant,
# not the digits read as octal (0420, r---w----).  644 is the misread one.
import os

os.chmod("conf", 420)
os.chmod("run.sh", 493)
os.chmod("data", 644)
os.chmod("shared", 438)
