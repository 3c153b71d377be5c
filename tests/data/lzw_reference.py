"""A small reference encoder of Unix compress's ``.Z`` format, for the tests of
:mod:`multisvm_cli.data.unix_compress` (written from the format's description in that module,
not from the reader; its streams are also checked against independent decoders, ncompress and
``gzip -d``, where those are installed).

Greedy LZW: the longest string in the table is emitted, and that string plus the next byte
becomes an entry. Codes are packed least-significant bit first in groups of eight codes; the
rest of a group is padding when the width grows or after CLEAR. The width grows when the
*reader's* table (one entry behind the writer's: the reader adds nothing for the first code)
no longer fits the current width.
"""

MAGIC = b"\x1f\x9d"
CLEAR = 256


class _Bits:
    """LSB-first bit packing with compress's group padding."""

    def __init__(self):
        self.out, self.acc, self.nacc = bytearray(), 0, 0
        self.pos, self.start = 0, 0

    def write(self, code, n_bits):
        self.acc |= code << self.nacc
        self.nacc += n_bits
        self.pos += n_bits
        while self.nacc >= 8:
            self.out.append(self.acc & 0xFF)
            self.acc >>= 8
            self.nacc -= 8

    def pad_group(self, n_bits):
        """Zero bits up to the end of the current group of ``n_bits``-bit codes."""
        group = 8 * n_bits
        skip = -(self.pos - self.start) % group
        while skip:
            step = min(skip, 16)
            self.write(0, step)
            skip -= step
        self.start = self.pos

    def finish(self):
        if self.nacc:
            self.out.append(self.acc & 0xFF)
        return bytes(self.out)


def compress(data, maxbits=16, block=True, clear_after=None):
    """``data`` as a ``.Z`` stream. ``clear_after``: in block mode, emit CLEAR once the table
    has been full for that many codes (None: never)."""
    bits = _Bits()
    top, first = 1 << maxbits, 257 if block else 256
    table, free = {bytes((i,)): i for i in range(256)}, first
    reader_len, n_bits, full_for, emitted = first, 9, 0, 0

    def emit(code):
        nonlocal n_bits, reader_len, emitted
        if reader_len > (1 << n_bits) - 1 and n_bits < maxbits:
            bits.pad_group(n_bits)
            n_bits += 1
        bits.write(code, n_bits)
        if emitted and reader_len < top and not (block and code == CLEAR):
            reader_len += 1
        emitted += 1

    w = b""
    for byte in data:
        wc = w + bytes((byte,))
        if wc in table:
            w = wc
            continue
        emit(table[w])
        if free < top:
            table[wc] = free
            free += 1
        elif block and clear_after is not None:
            full_for += 1
            if full_for >= clear_after:
                emit(CLEAR)
                bits.pad_group(n_bits)
                n_bits, reader_len, full_for = 9, 256, 0
                table, free = {bytes((i,)): i for i in range(256)}, 257
        w = bytes((byte,))
    if w:
        emit(table[w])
    return MAGIC + bytes((maxbits | (0x80 if block else 0),)) + bits.finish()
