# Layout "csv_id": the reference, submitted under a file name that makes its student id start a
# spreadsheet formula (+SUM(...), -1+1, @cmd).  The grades.csv cell is neutralised with a quote.
