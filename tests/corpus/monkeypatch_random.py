# Appended to the reference: replaces the random module's functions (and the module itself in
# sys.modules) so every die is a six and seeding does nothing.
import random
import sys
import types

random.randint = lambda a, b: 6
random.seed = lambda *args, **kwargs: None
random.random = lambda: 0.99
_fake = types.ModuleType("random")
_fake.randint, _fake.seed, _fake.random = random.randint, random.seed, random.random
sys.modules["random"] = _fake
