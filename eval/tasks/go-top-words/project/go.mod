module example.com/freq

go 1.22
