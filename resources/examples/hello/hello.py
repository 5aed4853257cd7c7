"""Tender's example workload: a fake training loop with the output of a real one.

hello.mjs is the same program for nodes without Python; both print the same lines and
write the same files for the same SEED. Plain % formatting keeps it working on old Python 3.
"""
import os
import sys

MASK = 0xFFFFFFFF
GREEN, YELLOW, RED, DIM, RESET = "\033[32m", "\033[33m", "\033[31m", "\033[2m", "\033[0m"


class Xorshift32(object):
    """The same generator as hello.mjs, so both runtimes draw the same numbers."""

    def __init__(self, seed):
        self.x = ((seed * 2654435761) & MASK) or 1

    def next(self):
        x = self.x
        x ^= (x << 13) & MASK
        x ^= x >> 17
        x ^= (x << 5) & MASK
        self.x = x
        return x / 4294967296.0


def int_env(name, default):
    raw = os.environ.get(name, "")
    try:
        return int(raw) if raw else default
    except ValueError:
        sys.stderr.write("%swarning: %s=%r is not an integer; using %d%s\n" % (YELLOW, name, raw, default, RESET))
        return default


def main():
    seed = int_env("SEED", 0)
    steps = int_env("TENDER_PARAM_STEPS", 3000)
    fail_at = int_env("TENDER_PARAM_FAIL_AT_STEP", 0)
    lr = os.environ.get("TENDER_PARAM_LR", "3e-4")
    out_dir = os.path.join(os.environ.get("TENDER_WORKSPACE", "."), "out")
    if not os.path.isdir(out_dir):
        os.makedirs(out_dir)

    print("%shello from tender%s (python %d.%d)" % (GREEN, RESET, sys.version_info[0], sys.version_info[1]))
    print("job %s, attempt %s" % (os.environ.get("TENDER_JOB_ID", "-"), os.environ.get("TENDER_ATTEMPT", "-")))
    print("seed %d, steps %d, lr %s" % (seed, steps, lr))
    for name in sorted(k for k in os.environ if k.startswith("TENDER_PARAM_")):
        print("%sparam %s = %s%s" % (DIM, name, os.environ[name], RESET))

    rng = Xorshift32(seed)
    curve = ["step,loss"]
    loss = 0.0
    for step in range(1, steps + 1):
        loss = 2.5 / (1 + step * 0.01) + (rng.next() - 0.5) * 0.05
        if step % 100 == 0:
            curve.append("%d,%.6f" % (step, loss))
        if step % 60 == 0:
            sys.stdout.flush()  # keeps lines and the bar in order on a terminal
            done = step * 30 // steps
            sys.stderr.write("\r[%s%s] %3d%%" % ("#" * done, "." * (30 - done), step * 100 // steps))
        if step % 500 == 0:
            print("%sstep %05d/%d loss %.4f checkpoint%s" % (GREEN, step, steps, loss, RESET))
        else:
            print("step %05d/%d loss %.4f" % (step, steps, loss))
        if step == fail_at:
            break
    sys.stdout.flush()
    sys.stderr.write("\n")

    failed = fail_at > 0 and fail_at <= steps
    done_steps = fail_at if failed else steps
    with open(os.path.join(out_dir, "metrics.json"), "w") as f:
        f.write('{"loss": %.6f, "steps": %d, "seed": %d, "failed": %s}\n'
                % (loss, done_steps, seed, "true" if failed else "false"))
    with open(os.path.join(out_dir, "loss.csv"), "w") as f:
        f.write("\n".join(curve) + "\n")

    if failed:
        sys.stderr.write("%serror: loss diverged at step %d (TENDER_PARAM_FAIL_AT_STEP)%s\n" % (RED, fail_at, RESET))
        return 3
    print("%sdone%s: loss %.4f after %d steps" % (GREEN, RESET, loss, steps))
    return 0


if __name__ == "__main__":
    sys.exit(main())
