/** Time-series charts drawn by uPlot; each comes with a table of the exact values for screen readers and copying. */
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

/** One line: its label, colour and a value per x (null where unknown). */
export type Line = { label: string; color: string; values: (number | null)[] };

/**
 * A line chart of `lines` over `x` (UTC Unix seconds), fitting its container's width.
 * @param title the chart's accessible name
 */
export function Chart({ title, x, lines, height = 220 }: { title: string; x: number[]; lines: Line[]; height?: number }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const width = () => Math.max(260, el.clientWidth);
    const plot = new uPlot(
      {
        width: width(),
        height,
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
        series: [
          { label: 'time (UTC)' },
          ...lines.map((l) => ({ label: l.label, stroke: l.color, width: 2, points: { show: true, size: 5 } })),
        ],
        axes: [
          { stroke: '#222', grid: { stroke: '#ddd' } },
          { stroke: '#222', grid: { stroke: '#ddd' }, size: 70 },
        ],
        legend: { show: true },
      },
      [x, ...lines.map((l) => l.values)] as uPlot.AlignedData,
      el,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: width(), height }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [x, lines, height]);
  return <div class="chart" ref={box} role="img" aria-label={title} />;
}
