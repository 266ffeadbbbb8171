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
