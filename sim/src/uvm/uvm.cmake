# The names (sides, advice) are a module of their own: the trace readers
# need them, not the model (uvm_names.c says why).
tlbsim_module(uvm_names SOURCES uvm_names.c)
tlbsim_module(uvm SOURCES uvm.c uvm_config.c uvm_tree.c uvm_table.c uvm_pack.c DEPS tlbsim_uvm_names tlbsim_config tlbsim_pt tlbsim_phys)
tlbsim_module(uvm_suite SOURCES uvm_suite.c DEPS tlbsim_uvm tlbsim_gather tlbsim_machine tlbsim_exp)
