# Two tunes at once under `make -j2`, each asking for -j 2. The '+' marks the recipe as one that
# takes part in make's jobserver (make then hands it the jobserver's pipe), as for a recursive
# make; PLUS= drops it.
PLUS = +
all: a.py b.py
%.py:
	$(PLUS)$(VTAC) tune $(SAMPLE) --trials 12 --seed 2 -j 2 --log $*.jsonl -o $@ > $*.txt
