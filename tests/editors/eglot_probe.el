;;; eglot_probe.el --- headless Emacs probe for tests/editors/test_emacs.py  -*- lexical-binding: t; -*-

;; Loads the project's editors/emacs/pypto-eglot.el the way its README says, opens TARGET_FILE
;; and reports what Emacs itself got from pypto-lsp: flymake diagnostics, the code-lens
;; overlays `pypto-eglot-lens-mode' draws, eglot's own hover (its eldoc function) at
;; PROBE_HOVER ("line:col", 0-based), the outlined-program buffer, which standard features
;; eglot sees, its completion after `pl.Level.' and the line a rename at PROBE_RENAME leaves. Prints ONE JSON object on
;; stdout; the pytest side makes the assertions.
;;
;; Environment: PYPTO_EMACS_DIR (editors/emacs), PYPTO_LSP_CMD (JSON list), TARGET_FILE,
;; PROBE_HOVER, PROBE_RENAME, PROBE_TIMEOUT_S.

(require 'package)
(when (file-directory-p "/usr/share/emacs/site-lisp/elpa") ; Debian's elpa-eglot; -Q skips it
  (add-to-list 'package-directory-list "/usr/share/emacs/site-lisp/elpa")
  (package-initialize))
(require 'json)
(require 'flymake)
(add-to-list 'load-path (getenv "PYPTO_EMACS_DIR"))
(require 'pypto-eglot)

(defvar probe-timeout (string-to-number (or (getenv "PROBE_TIMEOUT_S") "20")))
(defvar probe-report nil)

(defun probe-put (key value)
  (setq probe-report (cons (cons key value) probe-report)))

(defun probe-wait (pred)
  "Pump the event loop until PRED is non-nil or `probe-timeout' passes; return PRED's value."
  (let ((deadline (+ (float-time) probe-timeout)))
    (while (and (not (funcall pred)) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    (funcall pred)))

(defun probe-line-col (pos)
  (save-excursion
    (goto-char pos)
    (list (1- (line-number-at-pos)) (current-column))))

(defun probe-diagnostics ()
  (mapcar (lambda (d)
            (let ((spec (alist-get 'eglot-lsp-diag (flymake-diagnostic-data d)))
                  (at (probe-line-col (flymake-diagnostic-beg d))))
              `((line . ,(car at)) (col . ,(cadr at))
                (code . ,(plist-get spec :code)) (text . ,(flymake-diagnostic-text d)))))
          (flymake-diagnostics)))

(defun probe-lenses ()
  (mapcar (lambda (o)
            `((line . ,(car (probe-line-col (overlay-start o))))
              (title . ,(overlay-get o 'pypto-eglot-title))))
          (seq-filter (lambda (o) (overlay-get o 'pypto-eglot-lens))
                      (overlays-in (point-min) (point-max)))))

(defun probe-hover (line col)
  "Hover text as eglot's eldoc function renders it at LINE:COL."
  (goto-char (point-min))
  (forward-line line)
  (forward-char col)
  (let ((hover 'pending))
    (eglot-hover-eldoc-function (lambda (info &rest _) (setq hover info)))
    (probe-wait (lambda () (not (eq hover 'pending))))
    (unless (eq hover 'pending) hover)))

(defun probe-run ()
  (setq pypto-eglot-server-command (append (json-read-from-string (getenv "PYPTO_LSP_CMD")) nil))
  (setq eglot-sync-connect probe-timeout
        eglot-autoshutdown t
        eglot-events-buffer-size 0)
  (pypto-eglot-setup)
  (add-hook 'python-mode-hook #'eglot-ensure)
  (add-hook 'eglot-managed-mode-hook #'pypto-eglot-lens-mode)
  (find-file (getenv "TARGET_FILE"))
  ;; eglot-ensure connects from post-command-hook, which batch Emacs never runs by itself
  (run-hooks 'post-command-hook)
  (unless (probe-wait #'eglot-current-server)
    (error "no eglot server for the buffer within %ss" probe-timeout))
  (probe-put 'server (plist-get (eglot--server-info (eglot-current-server)) :name))
  (flymake-start)
  (probe-wait #'flymake-diagnostics)
  (probe-put 'diagnostics (vconcat (probe-diagnostics)))
  ;; batch Emacs is never idle: fire the lens refresh that pypto-eglot-lens-mode scheduled
  (unless (timerp pypto-eglot--lens-timer)
    (error "pypto-eglot-lens-mode did not schedule a code-lens refresh"))
  (timer-event-handler pypto-eglot--lens-timer)
  (probe-put 'lenses (vconcat (probe-lenses)))
  (let ((at (mapcar #'string-to-number (split-string (getenv "PROBE_HOVER") ":"))))
    (probe-put 'hover (probe-hover (car at) (cadr at))))
  (probe-put 'outlined (with-current-buffer (pypto-eglot-show-outlined-program) (buffer-string)))
  (probe-put 'capabilities
             (vconcat (seq-filter (lambda (cap) (funcall (if (fboundp 'eglot-server-capable)
                                                             'eglot-server-capable
                                                           'eglot--server-capable)
                                                         cap))
                                  '(:completionProvider :signatureHelpProvider
                                    :documentHighlightProvider :renameProvider))))
  (probe-completion)
  (let ((at (mapcar #'string-to-number (split-string (getenv "PROBE_RENAME") ":"))))
    (probe-put 'renamed_line (probe-rename (car at) (cadr at) "head"))))

(defun probe-completion ()
  "Candidates of eglot's own completion-at-point after `pl.Level.' on a new last line."
  (goto-char (point-max))
  (insert "\nx = pl.Level.")
  ;; eglot sends the change on an idle timer, which batch Emacs never runs
  (eglot--signal-textDocument/didChange)
  (let* ((capf (eglot-completion-at-point))
         (table (and capf (nth 2 capf))))
    (probe-put 'completion (vconcat (and table (all-completions "" table)))))
  (delete-region (line-beginning-position) (point-max))
  (delete-char -1)
  (eglot--signal-textDocument/didChange))

(defun probe-rename (line col new-name)
  "The text of LINE after `eglot-rename' to NEW-NAME at LINE:COL, applied without asking."
  (setq eglot-confirm-server-initiated-edits nil)
  (defvar eglot-confirm-server-edits)
  (setq eglot-confirm-server-edits nil)
  (goto-char (point-min))
  (forward-line line)
  (forward-char col)
  (eglot-rename new-name)
  (buffer-substring-no-properties (line-beginning-position) (line-end-position)))

(defun probe-server-stderr ()
  (mapconcat (lambda (b) (with-current-buffer b (buffer-string)))
             (seq-filter (lambda (b) (string-match-p "stderr" (buffer-name b))) (buffer-list))
             "\n"))

(defvar probe-finished nil)

;; The report is printed on the way out, whichever way that is: batch Emacs also exits (255)
;; when eglot signals "Server died" from a process sentinel, past any condition-case here.
(add-hook 'kill-emacs-hook
          (lambda ()
            (unless probe-finished
              (unless (assq 'error probe-report)
                (probe-put 'error "Emacs exited before the probe finished"))
              (probe-put 'server_stderr (probe-server-stderr)))
            (probe-put 'emacs emacs-version)
            (princ (concat (json-encode probe-report) "\n"))))

(condition-case err
    (progn (probe-run) (setq probe-finished t))
  (error (probe-put 'error (error-message-string err))))
(ignore-errors (eglot-shutdown (eglot-current-server)))
(kill-emacs (if probe-finished 0 1))
