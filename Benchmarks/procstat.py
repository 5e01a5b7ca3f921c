"""What the side-by-side CPU benchmarks (mpd, rooms) read about a running process from /proc. Standard library only."""
import os
import socket

TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid, tid=None):
    """utime + stime of a process, or of one of its threads, in seconds."""
    path = f"/proc/{pid}/stat" if tid is None else f"/proc/{pid}/task/{tid}/stat"
    with open(path) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def threads(pid):
    """{tid: comm} of the process's threads."""
    result = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/comm") as f:
                result[tid] = f.read().strip()
        except OSError:
            pass
    return result


def memory(pid):
    """RSS, its anonymous and file parts, PSS (kB), threads and open descriptors."""
    values = {}
    for path, keys in ((f"/proc/{pid}/status", ("VmRSS", "RssAnon", "RssFile", "Threads")),
                       (f"/proc/{pid}/smaps_rollup", ("Pss", "Pss_Anon"))):
        with open(path) as f:
            for line in f:
                key, _, rest = line.partition(":")
                if key in keys:
                    values[key] = int(rest.split()[0])
    values["fds"] = len(os.listdir(f"/proc/{pid}/fd"))
    return values


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
