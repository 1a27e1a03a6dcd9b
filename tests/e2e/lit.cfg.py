# lit configuration of the end-to-end tests: the substitutions of tests/lit (%vtac, %samples,
# FileCheck, not), with this folder's .test files as the tests.
import os

lit_config.load_config(config, os.path.join(config.vtac_src_root, "tests", "lit", "lit.cfg.py"))
config.name = "vtac-e2e"
config.suffixes = [".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.vtac_obj_root, "tests", "e2e")
