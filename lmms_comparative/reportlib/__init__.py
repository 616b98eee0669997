"""What a benchmark's report section is built with (the kit: it never calls a benchmark): the run
it reads (``runs``), table cells (``cells``), the marks a value carries (``marks``), chart colours
(``charts``) and the paper's rows beside ours (``paper``). The report itself, which calls every
benchmark's section, is ``lmms_comparative/report``."""
