"""pyte as a reading: reads cases (4-byte big-endian length, then the bytes) from stdin, feeds each
to a fresh pyte ByteStream and Screen, and prints one JSON list: per case, the text pyte's stream
handed to Screen.draw (the parse-level print)."""
import json
import struct
import sys

import pyte


class Recorder(pyte.Screen):
    def __init__(self):
        super().__init__(200, 40)
        self.drawn = []

    def draw(self, data):
        self.drawn.append(data)
        super().draw(data)


def main():
    data = sys.stdin.buffer.read()
    out = []
    i = 0
    while i < len(data):
        (n,) = struct.unpack(">I", data[i:i + 4])
        case = data[i + 4:i + 4 + n]
        i += 4 + n
        screen = Recorder()
        stream = pyte.ByteStream(screen)
        stream.feed(case)
        out.append("".join(screen.drawn))
    sys.stdout.write(json.dumps(out))


main()
