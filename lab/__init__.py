"""The tutorial's lab: measure, tabulate, draw and grade.

Data flows one way:

    steps and peers run  ->  docs/results/*.csv  ->  tables and figures  ->  docs

Every module reads the CSVs through lab.results, whose layouts are declared
once, in lab.schema.  Nothing here reads the documentation to decide what to
measure.
"""
