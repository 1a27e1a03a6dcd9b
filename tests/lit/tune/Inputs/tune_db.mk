# Two tunes of different workloads at once under `make -j2`, both adding to one tuning database.
all: one.py two.py
one.py:
	+$(VTAC) tune $(ONE) --trials 4 -j 2 --tuning-db db.jsonl -o $@ > one.txt
two.py:
	+$(VTAC) tune $(TWO) --trials 4 -j 2 --tuning-db db.jsonl -o $@ > two.txt
