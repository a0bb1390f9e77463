// A button that opens a short menu of choices: ↓/↑ move between them, Enter chooses, Escape (or a
// click elsewhere) closes it and gives the focus back to the button.
import { useEffect, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';

export interface MenuItem {
  readonly label: ReactNode;
  /** Accessible name (the label may hold more than words). */
  readonly name: string;
  readonly onChoose: () => void;
  readonly disabled?: boolean;
}

export function MenuButton({ label, items, disabled, title }: { label: string; items: readonly MenuItem[]; disabled?: boolean; title?: string }) {
  const [open, setOpen] = useState(false);
  const box = useRef<HTMLDivElement | null>(null);
  const button = useRef<HTMLButtonElement | null>(null);
  useEffect(() => {
    if (!open) return;
    box.current?.querySelector<HTMLElement>('[role=menuitem]:not(:disabled)')?.focus();
    const away = (e: PointerEvent) => {
      if (!box.current?.contains(e.target as Node)) setOpen(false);
    };
    window.addEventListener('pointerdown', away, true);
    return () => window.removeEventListener('pointerdown', away, true);
  }, [open]);
  const close = () => {
    setOpen(false);
    button.current?.focus();
  };
  const onKey = (e: KeyboardEvent<HTMLDivElement>) => {
    if (!open) return;
    const all = [...(box.current?.querySelectorAll<HTMLElement>('[role=menuitem]:not(:disabled)') ?? [])];
    const at = all.indexOf(document.activeElement as HTMLElement);
    if (e.key === 'Escape') close();
    else if (e.key === 'ArrowDown') all[(at + 1) % all.length]?.focus();
    else if (e.key === 'ArrowUp') all[(at - 1 + all.length) % all.length]?.focus();
    else return;
    e.preventDefault();
    e.stopPropagation();
  };
  return (
    <div className="menu-button" ref={box} onKeyDown={onKey}>
      <button type="button" ref={button} aria-haspopup="menu" aria-expanded={open} disabled={disabled} title={title} onClick={() => setOpen(!open)}>
        {label} <span aria-hidden="true">▾</span>
      </button>
      {open && (
        <div className="menu" role="menu" aria-label={label}>
          {items.map((item) => (
            <button key={item.name} type="button" role="menuitem" aria-label={item.name} disabled={item.disabled} onClick={() => {
              close();
              item.onChoose();
            }}>
              {item.label}
            </button>
          ))}
        </div>
      )}
    </div>
  );
}
