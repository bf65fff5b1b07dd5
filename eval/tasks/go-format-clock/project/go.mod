module example.com/clock

go 1.22
