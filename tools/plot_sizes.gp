# Bandwidth against the size of a square matrix for the key steps, cuBLAS
# and the copy bound.  tools/plot.sh calls it with
#   data      folder of the prepared tables (size_<step>.dat, size_base.dat)
#   series    the steps to draw, e.g. "01 02 03 04 05 06 07 08 09 10"
#   gpu_name  for the title
#   fmt, out  "svg" or "png", and the file to write

if (fmt eq "svg") {
    set terminal svg size 1000, 560 dynamic noenhanced font "DejaVu Sans,13" background "#ffffff"
} else {
    set terminal pngcairo noenhanced size 1000, 560 font "DejaVu Sans,11" background "#ffffff"
}
set output out

set title sprintf("Transpose bandwidth against matrix size on %s", gpu_name)
set logscale x 2
set xtics ("1024" 1024, "2048" 2048, "4096" 4096, "8192" 8192, "16384" 16384, "32768" 32768) nomirror
set ytics nomirror
set border 3
set xrange [900 : 37000]
set yrange [0 : *]
set offsets 0, 0, graph 0.05, 0
set grid xtics ytics lc rgb "#dddddd" dt 1
set xlabel "N (square N x N float32 matrix)"
set ylabel "GB/s (read + written, 1e9 B/s)"
set key outside right top Left reverse samplen 3
# colours kept apart from the green copy line and the red cuBLAS line; the
# point shapes cycle too, so that curves of one colour still differ
colors = "#1f77b4 #ff7f0e #9467bd #8c564b #e377c2 #17becf #7f7f7f #bcbd22 #000000 #6b6ecf"
ncolors = words(colors)

plot data."/size_base.dat" using 1:2 with lines dt 2 lw 2.5 lc rgb "#2a9d3a" title "copy bound", \
     '' using 1:3 with lines lw 2.5 lc rgb "#d62728" title "cuBLAS cublasSgeam", \
     for [i = 1:words(series)] sprintf("%s/size_%s.dat", data, word(series, i)) using 1:2 \
         with linespoints lw 1.5 pt 5 + 2 * ((i - 1) % 5) ps 0.8 \
         lc rgb word(colors, (i - 1) % ncolors + 1) title columnheader(2)
unset output
