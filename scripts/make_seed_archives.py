#!/usr/bin/env python3
"""Writes tests/data/archives/: small good and hostile graph archives, the seed corpus of the
archive fuzzer (tests/fuzz/archive_fuzz.cpp, scripts/fuzz). Deterministic: re-running it gives
the same bytes. The unit tests build their hostile archives at run time (tests/input/archive_test.cpp);
these files only give the fuzzer a start in every format and every kind of refusal.
"""
import gzip
import io
import lzma
import bz2
import os
import tarfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "data", "archives")
GRAPH = open(os.path.join(HERE, "..", "graphs", "samples", "matmul_plain_fp32.json"), "rb").read()
MTIME = 1700000000  # fixed, so that the bytes do not change between runs


def member(name, data=b"", kind=tarfile.REGTYPE, link="", size=None):
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = link
    info.mtime = MTIME
    info.mode = 0o644
    info.size = len(data) if size is None else size
    return info, data


def tar_bytes(members, fmt=tarfile.GNU_FORMAT):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=fmt) as tar:
        for info, data in members:
            tar.addfile(info, io.BytesIO(data) if info.isreg() else None)
    return buf.getvalue()


def declare_size(tar, size):
    """Rewrites the first header's size field (and its checksum) to `size`."""
    header = bytearray(tar[:512])
    header[124:136] = b"%011o\0" % size
    header[148:156] = b" " * 8
    header[148:156] = b"%06o\0 " % sum(header)
    return bytes(header) + tar[512:]


def gz(data):
    return gzip.compress(data, mtime=0)


def write(name, data):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)


def main():
    os.makedirs(OUT, exist_ok=True)
    good = tar_bytes([member("graphs/", kind=tarfile.DIRTYPE), member("graphs/a.json", GRAPH),
                      member("README.md", b"not a graph")])
    write("good.tar", good)
    write("good.tar.gz", gz(good))
    write("good.tar.xz", lzma.compress(good))
    write("good.tar.bz2", bz2.compress(good))
    zbuf = io.BytesIO()
    with zipfile.ZipFile(zbuf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in [("graphs/a.json", GRAPH), ("b.json", b"{}"), ("../escape.json", b"{}")]:
            info = zipfile.ZipInfo(name, date_time=(2023, 11, 14, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
    write("mixed.zip", zbuf.getvalue())
    write("traversal.tar", tar_bytes([member("../escape.json", b"{}"), member("a/../../b.json", b"{}"),
                                      member("/tmp/absolute.json", b"{}"), member("ok.json", b"{}")]))
    write("links.tar", tar_bytes([member("real.json", b"{}"),
                                  member("sym.json", kind=tarfile.SYMTYPE, link="/etc/passwd"),
                                  member("dir", kind=tarfile.SYMTYPE, link=".."),
                                  member("dir/through.json", b"{}"),
                                  member("hard.json", kind=tarfile.LNKTYPE, link="real.json"),
                                  member("dev.json", kind=tarfile.CHRTYPE),
                                  member("fifo.json", kind=tarfile.FIFOTYPE)]))
    write("duplicate.tar", tar_bytes([member("a.json", b"first"), member("a.json", b"second"),
                                      member("a.json/b.json", b"{}")]))
    # 4 MiB of zeros in one member: a small decompression bomb (~4 KiB compressed).
    write("bomb.tar.gz", gz(tar_bytes([member("bomb.json", b"\0" * (4 << 20))])))
    # A header that declares 1 MiB of data where the archive holds 2 bytes.
    write("liar.tar", declare_size(tar_bytes([member("liar.json", b"{}")]), 1 << 20))
    truncated = gz(good)
    write("truncated.tar.gz", truncated[: len(truncated) // 2])
    write("pax_long_name.tar", tar_bytes([member("d/" * 120 + "long.json", b"{}")], fmt=tarfile.PAX_FORMAT))


if __name__ == "__main__":
    main()
