"""The day's stages and their runners: Spark schedules the work, and most of it is
Python tasks that read and write the day's work files themselves (a part file per input
file, docs file or bucket), so a page's rows seldom cross the JVM."""
