"""Unix ``compress`` (``.Z``) streams: a bounded LZW reader.

UCI serves some Statlog files only this way (Shuttle's ``shuttle.trn.Z``); Python's standard
library cannot read them. The format is that of compress(1) (Thomas, McKie, Davies, Woods et
al.; ncompress 4.2 and gzip's ``unlzw.c`` read it the same way), the LZW scheme of Welch,
"A technique for high-performance data compression", IEEE Computer 17(6), 1984:

- a 3-byte header: the magic ``1f 9d``, then a flag byte whose bits 0-4 give ``maxbits``
  (9..16, the widest code) and whose bit 7 is *block mode* (code 256 is CLEAR: the table
  is emptied and the code width goes back to 9 bits); bits 5-6 are unused and must be 0;
- then codes packed least-significant bit first, 9 bits wide at first. The dictionary starts
  with the 256 single bytes; each code after the first adds one entry, the previous code's
  string plus the first byte of this one (a code equal to the next free entry, the "KwKwK"
  case, stands for the previous string plus its own first byte). The width grows by one bit
  when the next free entry no longer fits, up to ``maxbits``; the table stops growing at
  ``2**maxbits`` entries.
- compress writes codes in groups of eight (``n_bits`` bytes): when the width changes, or
  after CLEAR, the rest of the current group is padding, and reading resumes at the next
  group boundary, counted from where the current width began.

Readers differ on one corner: with ``maxbits`` 9, gzip's ``unlzw`` widens codes to 10 bits once
the table is full; ncompress and this reader stay at 9 (UCI's files are 16-bit).

Bounds: the output stops at ``limit`` bytes (past it the stream is refused, nothing more is
produced). The dictionary holds at most ``2**16`` entries, and since each entry is a string
already written plus one byte, its memory is bounded by the output written. A stream that
names a code not yet defined, starts with a code past 255, or carries another header is
refused, with a one-line :class:`.DatasetError` naming the file.
"""

from .errors import DatasetError

MAGIC = b"\x1f\x9d"
HEADER_BYTES = 3
INIT_BITS = 9
MAX_BITS = 16
BLOCK_MODE = 0x80
BITS_MASK = 0x1F
RESERVED = 0x60
CLEAR = 256


def is_compressed(path):
    """True when the file at ``path`` starts with the ``.Z`` magic bytes."""
    with open(path, "rb") as stream:
        return stream.read(2) == MAGIC


def decompress_file(packed, target, limit, name):
    """Decompress the ``.Z`` file ``packed`` into the file ``target``; returns the number of
    bytes written (see :func:`read_compressed`)."""
    content = read_compressed(packed, limit, name)
    with open(target, "wb") as sink:
        sink.write(content)
    return len(content)


def read_compressed(packed, limit, name):
    """The content of the ``.Z`` file ``packed``. ``limit``: the most bytes the content may
    have (None: no bound); ``name`` names the stream in errors. The file is never read past
    ``max_packed_bytes(limit)``."""
    with open(packed, "rb") as stream:
        data = stream.read(max_packed_bytes(limit) + 1)
    if limit is not None and len(data) > max_packed_bytes(limit):
        raise DatasetError(f"{name} is larger than a .Z stream of at most {limit:,} bytes of "
                           "content can be: refused")
    return decompress(data, limit, name)


def max_packed_bytes(limit):
    """The largest ``.Z`` stream whose content can be ``limit`` bytes: LZW never spends more
    than 16 bits (plus group padding) on a byte, so twice the content and a header."""
    return 1 << 62 if limit is None else 2 * limit + 64


def decompress(data, limit, name):
    """The content of the ``.Z`` stream ``data`` (bytes); DatasetError naming ``name`` when
    the header is not compress's, a code is invalid, or the content passes ``limit`` bytes."""
    maxbits, block = _header(data, name)
    words = _windows(data[HEADER_BYTES:])
    return _decode(words, 8 * (len(data) - HEADER_BYTES), maxbits, block, limit, name)


def _header(data, name):
    """(maxbits, block mode) of the 3-byte header; DatasetError when it is not compress's."""
    if len(data) < HEADER_BYTES or data[:2] != MAGIC:
        raise DatasetError(f"{name} is not a Unix compress (.Z) stream (no 1f 9d header): "
                           "refused")
    flags = data[2]
    maxbits = flags & BITS_MASK
    if flags & RESERVED or not INIT_BITS <= maxbits <= MAX_BITS:
        raise DatasetError(f"{name}: .Z header flags 0x{flags:02x} (maxbits {maxbits}) are not "
                           f"compress's ({INIT_BITS}..{MAX_BITS} bits): refused")
    return maxbits, bool(flags & BLOCK_MODE)


def _windows(body):
    """Per byte offset i, the little-endian 24-bit word of bytes i, i+1, i+2 (zero-padded):
    any code of at most 16 bits starting in byte i lies inside it."""
    import numpy as np

    padded = np.zeros(len(body) + 2, dtype=np.uint32)
    padded[:len(body)] = np.frombuffer(body, dtype=np.uint8)
    words = padded[:-2] | (padded[1:-1] << 8) | (padded[2:] << 16)
    return words.tolist()


def _group_end(pos, start, n_bits):
    """``pos`` rounded up to the next boundary of an ``n_bits``-byte group of codes counted
    from ``start`` (where codes of this width began)."""
    group = 8 * n_bits
    return start + -(-(pos - start) // group) * group


def _decode(words, total_bits, maxbits, block, limit, name):
    """The LZW decoding loop of compress(1) (see the module docstring), bounded by ``limit``."""
    table = [bytes((i,)) for i in range(256)] + ([b""] if block else [])
    top = 1 << maxbits                       # entries 0 .. top - 1
    n_bits, start, pos = INIT_BITS, 0, 0
    maxcode = (1 << n_bits) - 1
    out, written, prev = [], 0, None
    while True:
        if len(table) > maxcode and n_bits < maxbits:
            pos = start = _group_end(pos, start, n_bits)
            n_bits += 1
            maxcode = top if n_bits == maxbits else (1 << n_bits) - 1
            continue
        if pos + n_bits > total_bits:
            break
        code = (words[pos >> 3] >> (pos & 7)) & ((1 << n_bits) - 1)
        pos += n_bits
        if prev is None:
            if code > 255:
                raise DatasetError(f"{name}: corrupt .Z stream (first code {code} is not a "
                                   "byte): refused")
            entry = table[code]
        elif block and code == CLEAR:
            del table[CLEAR:]
            pos = start = _group_end(pos, start, n_bits)
            n_bits, maxcode = INIT_BITS, (1 << INIT_BITS) - 1
            continue
        elif code < len(table):
            entry = table[code]
        elif code == len(table) and len(table) < top:
            entry = prev + prev[:1]
        else:
            raise DatasetError(f"{name}: corrupt .Z stream (code {code} at bit {pos - n_bits} "
                               f"is not defined yet): refused")
        written += len(entry)
        if limit is not None and written > limit:
            raise DatasetError(f"{name} decompresses to more than {limit:,} bytes: refused")
        out.append(entry)
        if prev is not None and len(table) < top:
            table.append(prev + entry[:1])
        prev = entry
    return b"".join(out)
