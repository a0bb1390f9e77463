// @vitest-environment happy-dom
import { act, cleanup, render } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BigList, type RowRenderProps } from '../../renderer/src/components/BigList';

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

const Row = ({ row, style }: RowRenderProps<object>) => <div style={style} data-row={row}>row {row}</div>;

function list(top: number, onTop: (row: number) => void) {
  return <BigList totalRows={1_000_000} rowHeight={20} top={top} onTop={onTop} renderRow={Row} rowProps={{}} label="rows" windowRows={64} />;
}

describe('BigList', () => {
  // CI failed once on "window is not defined": a far jump's put-off re-base check fired after the
  // test had unmounted the list and the DOM environment was gone. Unmounting must cancel it.
  it('leaves no timer behind when it is unmounted right after a far jump lands', async () => {
    vi.useFakeTimers();
    const onTop = vi.fn();
    const view = render(list(0, onTop));
    await act(async () => { await vi.advanceTimersByTimeAsync(50); });
    const idle = vi.getTimerCount();
    view.rerender(list(500_000, onTop));
    await act(async () => { await vi.advanceTimersByTimeAsync(0); });
    expect(vi.getTimerCount()).toBeGreaterThan(idle); // the landing put its check off
    view.unmount();
    expect(vi.getTimerCount()).toBe(idle);
  });
});
