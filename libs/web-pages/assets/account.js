// The copy buttons of the account pages: copy the value of the element they name.
document.addEventListener('click', (event) => {
  const button = event.target instanceof Element ? event.target.closest('[data-copy]') : null;
  if (!button) return;
  const field = document.getElementById(button.getAttribute('data-copy'));
  if (!field) return;
  const done = () => {
    const label = button.textContent;
    button.textContent = 'Copied';
    setTimeout(() => { button.textContent = label; }, 2000);
  };
  if (navigator.clipboard) navigator.clipboard.writeText(field.value ?? field.textContent).then(done, () => { field.select?.(); });
  else { field.select?.(); document.execCommand('copy'); done(); }
});

// Pages that follow work running in the background (a file import) mark the part that changes with
// data-refresh="<seconds>": it is fetched again and replaced until the page says the work is over.
const live = document.getElementById('live');
if (live && live.dataset.refresh) {
  const every = Number(live.dataset.refresh) * 1000;
  const tick = () => fetch(location.href, { credentials: 'same-origin' }).then((res) => res.text()).then((html) => {
    const next = new DOMParser().parseFromString(html, 'text/html').getElementById('live');
    if (!next) return;
    live.innerHTML = next.innerHTML;
    if (next.dataset.refresh) setTimeout(tick, every);
    else delete live.dataset.refresh;
  }, () => setTimeout(tick, every * 3));
  setTimeout(tick, every);
}
