# The ladder: GB/s of each step's default kernel, one panel per shape, with
# the copy bound and cuBLAS as horizontal lines.  tools/plot.sh calls it with
#   data      folder of the prepared tables (ladder_<shape>.dat / .gp)
#   shapes    the shapes to draw, e.g. "8192x8192 32768x32768"
#   gpu_name  for the title
#   fmt, out  "svg" or "png", and the file to write

panels = words(shapes)
height = 440 * panels + 40
if (fmt eq "svg") {
    set terminal svg size 1280, height dynamic noenhanced font "DejaVu Sans,13" background "#ffffff"
} else {
    set terminal pngcairo noenhanced size 1280, height font "DejaVu Sans,11" background "#ffffff"
}
set output out

set multiplot layout panels, 1 title sprintf("Transpose bandwidth on %s, default kernel of each step", gpu_name)
set style fill solid 0.85 border lc rgb "#2b4a73"
set boxwidth 0.6
set grid ytics lc rgb "#dddddd" dt 1
set border 3
set xtics nomirror scale 0 font ",10"
set bmargin 4.5
set ytics nomirror
set ylabel "GB/s (read + written, 1e9 B/s)"
set key top left Left reverse opaque box lc rgb "#bbbbbb" samplen 3

do for [i = 1:panels] {
    shape = word(shapes, i)
    file = sprintf("%s/ladder_%s.dat", data, shape)
    load sprintf("%s/ladder_%s.gp", data, shape)
    stats file using 3 nooutput
    set xrange [-0.6 : STATS_records - 0.4]
    top = STATS_max > copy_gbps ? STATS_max : copy_gbps
    set yrange [0 : 1.3 * top]
    set title sprintf("%s float32 (rows x cols)", shape)
    plot file using 0:3:xtic(sprintf("%s\n%s", strcol(1), strcol(2))) with boxes lc rgb "#4c72b0" notitle, \
         '' using 0:3:(sprintf("%.0f", $3)) with labels offset 0, 0.7 font ",10" notitle, \
         copy_gbps with lines dt 2 lw 2 lc rgb "#2a9d3a" title sprintf("copy bound (best of memcpy, copy kernel): %.0f GB/s", copy_gbps), \
         cublas_gbps with lines lw 2 lc rgb "#d62728" title (cublas_gbps == cublas_gbps ? sprintf("cuBLAS cublasSgeam: %.0f GB/s", cublas_gbps) : "cuBLAS: not run at this shape")
}
unset multiplot
unset output
