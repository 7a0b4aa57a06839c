find_package(Threads REQUIRED)
tlbsim_module(sweep SOURCES sweep_grid.c sweep_run.c sweep_table.c
              DEPS tlbsim_machine tlbsim_report tlbsim_trace tlbsim_base Threads::Threads)
