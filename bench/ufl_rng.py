"""ufl's random streams in Python (src/data/rng.hpp): splitmix64 seeding, xoshiro256**, its
Box-Muller normals and Fisher-Yates shuffle, and the minibatch order of
src/train/minibatch_sampler.hpp, so that a peer can start from ufl's initial parameters and read
ufl's minibatches in ufl's order (bench/torch_peer.py transformer --replay)."""
import math

MASK = (1 << 64) - 1
STREAM_LAYER_INIT, STREAM_MINIBATCHES = 4, 5


def splitmix64(state):
    state = (state + 0x9E3779B97F4A7C15) & MASK
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return state, z ^ (z >> 31)


def rotl(x, k):
    return ((x << k) | (x >> (64 - k))) & MASK


class Rng:
    def __init__(self, seed, stream):
        state = (seed * 0x9E3779B97F4A7C15 + stream) & MASK
        self.s = []
        for _ in range(4):
            state, word = splitmix64(state)
            self.s.append(word)
        self.spare = None

    def next_u64(self):
        s = self.s
        result = (rotl((s[1] * 5) & MASK, 7) * 9) & MASK
        t = (s[1] << 17) & MASK
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = rotl(s[3], 45)
        return result

    def uniform(self):
        return (self.next_u64() >> 11) * 2.0 ** -53

    def below(self, bound):
        limit = MASK - (MASK % bound)
        while True:
            x = self.next_u64()
            if x < limit:
                return x % bound

    def normal(self):
        if self.spare is not None:
            value, self.spare = self.spare, None
            return value
        while True:
            u1 = self.uniform()
            if u1 > 0.0:
                break
        u2 = self.uniform()
        radius = math.sqrt(-2.0 * math.log(u1))
        angle = 2.0 * math.pi * u2
        self.spare = radius * math.sin(angle)
        return radius * math.cos(angle)

    def normals(self, count, std):
        return [std * self.normal() for _ in range(count)]


class MinibatchOrder:
    """The training windows in ufl's order: reshuffled every epoch, read off in turn."""

    def __init__(self, count, seed):
        self.rng = Rng(seed, STREAM_MINIBATCHES)
        self.order = list(range(count))
        self.position = len(self.order)

    def next(self):
        if self.position == len(self.order):
            order = list(range(len(self.order)))
            for i in range(len(order) - 1, 0, -1):
                j = self.rng.below(i + 1)
                order[i], order[j] = order[j], order[i]
            self.order, self.position = order, 0
        self.position += 1
        return self.order[self.position - 1]
